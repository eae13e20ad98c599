export default { id: ".hidden", setup() {} };
